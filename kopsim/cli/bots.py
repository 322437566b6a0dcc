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
        spec = bot_spec(name)
        where = ("batch kernel and reference engine" if spec.kernel_kind is not None
                 else "reference engine only")
        doc = getattr(cls, "summary", None) or " ".join((cls.__doc__ or "").split()[:40])
        out += ["", f"{name}: {doc}", f"  plays in: {where} (with its defaults)"]
        fields = cls.Params.model_fields
        if not fields:
            out.append("  no parameters")
        for key, f in fields.items():
            default = f.default
            shown = type(default).__name__ + "(...)" if isinstance(default, BaseModel) \
                else repr(default)
            kind = getattr(f.annotation, "__name__", str(f.annotation))
            out.append(f"  {key} ({kind}, default {shown})"
                       + (f": {f.description}" if f.description else ""))
    return out[1:]


def run(args) -> int:
    print(clean("\n".join(bot_lines())))
    return 0
