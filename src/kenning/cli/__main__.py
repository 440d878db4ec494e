"""`python -m kenning.cli` runs the same command as `kenning`."""

from kenning.cli.main import main

main()
