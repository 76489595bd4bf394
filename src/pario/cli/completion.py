"""`pario completion bash|zsh`: the shell completion script of every command and flag, generated
by shtab from the same argparse parsers `pario` itself uses (so it never falls behind them)."""
from __future__ import annotations

import argparse

from pario.cli.args import row
from pario.model.errors import ParioError

SHELLS = ("bash", "zsh")
HOWTO = """Install it once:
  bash: pario completion bash > ~/.local/share/bash-completion/completions/pario
  zsh:  pario completion zsh > ~/.zfunc/_pario   (with fpath+=(~/.zfunc) before compinit in ~/.zshrc)
or for this shell only: eval "$(pario completion bash)" (bash), source <(pario completion zsh) (zsh)."""


def register(subparsers) -> None:
    p = subparsers.add_parser("completion",
                              description="Print the shell completion script of pario's commands and flags.",
                              epilog=HOWTO, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shell", choices=SHELLS, type=row("shell", "choice", choices=SHELLS),
                   help="the shell to complete in")
    p.set_defaults(run=run)


def script(shell: str) -> str:
    try:
        import shtab
    except ImportError:
        raise ParioError("shell completion needs the shtab package: pip install shtab (make setup installs it)",
                         exit_code=3) from None
    from pario.cli import build_parser  # the whole command line, as `pario` parses it

    return shtab.complete(build_parser(), shell=shell)


def run(args: argparse.Namespace) -> int:
    print(script(args.shell))
    return 0
