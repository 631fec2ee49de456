"""The world engine: one data-driven engine that answers every endpoint of a domain from its specs, SDL and fixture."""
