"""The web console: a shell (sign-in, top bar, navigation) and product pages built from shared widgets."""
