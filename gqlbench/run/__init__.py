"""Running a model on the benchmark: settings, folders, the generation loop, grids, cost and time."""
