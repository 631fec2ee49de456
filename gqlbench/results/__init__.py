"""What scored runs leave behind and what is read from them: files, summaries, intervals, tests, power."""
