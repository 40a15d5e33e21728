"""The model every room speaks: the driver protocol, targets, the gateway,
outcomes, certificates, baselines, exit codes, the error style and what the kit
trusts (docs/architecture.md#rooms). Imports only spec.
"""
