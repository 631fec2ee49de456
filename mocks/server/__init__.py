"""``gqlbench mock serve``: the GraphQL mock server, its request limits and its offline explorer."""
