"""`kopsim bots`: the bots there are, where each plays, and its parameters with their defaults."""

from __future__ import annotations

from ..terminal import clean


def add_parser(sub) -> None:
    sub.add_parser("bots", help="the bots, where each plays, and their parameters with defaults",
                   description="Every registered bot (plug-ins included): what it is, whether "
                               "it plays in the batch kernel, and each parameter with its "
                               "type, default and meaning. Name one in an experiment as "
                               "{ name = \"pimc\", samples = 32 }, or on the command line as "
                               "pimc:samples=32.")


def bot_lines() -> list[str]:
    from pydantic import BaseModel

    from ..bots import bot_spec, registered

    out = []
    for name, cls in sorted(registered().items()):
        doc = getattr(cls, "summary", None) or " ".join((cls.__doc__ or "").split()[:40])
        out += ["", f"{name}: {doc}", f"  plays in: {_where(cls, bot_spec)}"]
        fields = cls.Params.model_fields
        if not fields:
            out.append("  no parameters")
        for key, f in fields.items():
            if f.is_required():
                shown = "required"
            elif isinstance(f.default, BaseModel):
                shown = f"default {type(f.default).__name__}(...)"
            else:
                shown = f"default {f.default!r}"
            kind = ((f.json_schema_extra or {}).get("kind")  # where the type's name says little
                    or getattr(f.annotation, "__name__", str(f.annotation).replace("typing.", "")))
            out.append(f"  {key} ({kind}, {shown})"
                       + (f": {f.description}" if f.description else ""))
    return out[1:]


def _where(cls, bot_spec) -> str:
    """Where the bot plays with its defaults (a bot with required parameters: as its class
    says)."""
    from ..errors import InputError

    try:
        kind = bot_spec(cls.name).kernel_kind
        suffix = " (with its defaults)"
    except InputError:
        kind, suffix = getattr(cls, "kernel_kind", None), ""
        if hasattr(cls, "kernel_kind_of"):  # where it plays follows from what it is given
            return "batch kernel where its parts play there, else the reference engine"
    return ("batch kernel and reference engine" if kind is not None
            else "reference engine only") + suffix


def run(args) -> int:
    print(clean("\n".join(bot_lines())))
    return 0
