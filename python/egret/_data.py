"""Where the shipped rule library and device files are: for an installed
package (<prefix>/lib/python3/dist-packages/egret), <prefix>/share/egret,
where the installed CLI finds them too; else (the build tree's package) the
source tree the module was built from."""

import os

from egret import _egret


def _installed_data_dir():
    """<prefix>/share/egret when this package is installed under <prefix>
    and the data is there, else None."""
    site = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    suffix = os.path.normpath(_egret.python_install_dir)
    if not site.endswith(os.sep + suffix):
        return None
    prefix = site[: -len(suffix) - 1]
    data = os.path.join(prefix, _egret.install_datadir, "egret")
    return data if os.path.isfile(os.path.join(data, "rules", "hvx_ops.rules")) else None


def rules_dir():
    """The directory of the shipped rule library (egret/rules/lib/*.rules)."""
    data = _installed_data_dir()
    return os.path.join(data, "rules") if data else _egret.source_rules_dir


def devices_dir():
    """The directory of the shipped device files (``device="snapdragon-8-gen-3"``)."""
    data = _installed_data_dir()
    return os.path.join(data, "devices") if data else _egret.source_devices_dir
