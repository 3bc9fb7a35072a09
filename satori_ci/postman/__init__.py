"""The postman stage."""
