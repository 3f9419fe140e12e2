"""`python -m pincite.cli`: the same command as `pincite`."""

from .app import main

if __name__ == "__main__":
    main()
