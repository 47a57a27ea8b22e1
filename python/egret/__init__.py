from egret._errors import *  # noqa
