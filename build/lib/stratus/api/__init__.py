"""The JSON API: ``POST /api/{product}/{Action}``. Products register actions; one dispatcher runs them."""
