"""What the tests share, whatever their tier: the seed's keys (`keys`), calls through the API
(`api`, `workflows`, `audit`, `exports`), raw ASGI (`asgi`), the CLI as a subprocess (`cli`),
and the helpers of the OAuth, OpenAPI, scenario and webhook tests. Test modules import from
here, never from one another or from a conftest."""
