"""The one exception type that means "the user gave us something we cannot use".

The CLI turns it into a single line on stderr and exit code 2; everything else is a
bug and keeps its traceback.
"""


class UserError(Exception):
    """Bad input from the user: a pack, a path, an argument. The message names the culprit."""
