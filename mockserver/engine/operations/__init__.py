"""The API's operations as plain functions of a `Call` to an `Answer`, one module per area."""
