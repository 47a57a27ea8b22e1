"""Every architecture builder: model name (as in ../shared/aihub/architectures.tsv)
-> build(seed) returning an aihub.builder.Builder with its outputs set. Each
family module of scripts/aihub/ exports MODELS; a family is listed here once."""

import importlib

FAMILIES = ("resnet", "classic_cnn", "mobile_cnn", "segmentation", "detection", "restoration",
            "vision_transformer", "whisper")


def builders():
    """(name -> build, family -> import error text for families that failed to import)."""
    out, broken = {}, {}
    for fam in FAMILIES:
        try:
            mod = importlib.import_module(f"aihub.{fam}")
        except ModuleNotFoundError as e:
            if e.name == f"aihub.{fam}":
                continue  # not written yet
            broken[fam] = f"{type(e).__name__}: {e}"
            continue
        except Exception as e:  # noqa: BLE001 - reported per family
            broken[fam] = f"{type(e).__name__}: {e}"
            continue
        for name, build in mod.MODELS.items():
            if name in out:
                raise ValueError(f"{name} is built by two families")
            out[name] = build
    return out, broken
