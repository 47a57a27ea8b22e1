"""Where the shipped rule library and device files are: under the install
prefix for an installed egret (<prefix>/share/egret, as the installed CLI
finds them), else in the source tree the module was built from."""

import os

from egret import _egret


def _installed():
    """True when this package is the installed one (it lives under the
    prefix whose share/egret holds the data)."""
    data = _egret.installed_data_dir
    prefix = os.path.dirname(os.path.dirname(data))  # <prefix>/share/egret -> <prefix>
    here = os.path.realpath(os.path.dirname(__file__))
    return os.path.isdir(data) and here.startswith(os.path.realpath(prefix) + os.sep)


def rules_dir():
    """The directory of the shipped rule library (rules/lib/*.rules)."""
    if _installed():
        return os.path.join(_egret.installed_data_dir, "rules")
    return _egret.source_rules_dir


def devices_dir():
    """The directory of the shipped device files (``device="snapdragon-8-gen-3"``)."""
    if _installed():
        return os.path.join(_egret.installed_data_dir, "devices")
    return _egret.source_devices_dir
