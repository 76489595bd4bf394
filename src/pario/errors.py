"""The one error type a user sees: a clear line and an exit code, never a traceback."""


class ParioError(Exception):
    """A user-facing error. The message is one line saying what is wrong and how to fix it."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code
