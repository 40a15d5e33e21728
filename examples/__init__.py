"""Examples: the zoo of providers and CI set-ups."""
