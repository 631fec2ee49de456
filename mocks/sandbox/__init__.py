"""The sandbox: model-written programs run in isolated worker processes under a static policy and resource limits."""
