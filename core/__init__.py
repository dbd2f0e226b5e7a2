"""ClauseGraph core service: everything testable without a browser."""
__version__ = "0.1.0"
