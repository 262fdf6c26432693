"""perfit: performance models of distributed deep-learning training, fitted by differential
evolution, from Python.

    import perfit
    df = perfit.read_store("runs.h5", "/pytorch/resnet50")
    fit = perfit.fit(df, model="amdahl", target="time", factors={"p": "gpus"}, seed=1)
    fit.params                       # value, bounds, at_bound, determined, ci_lo, ci_hi
    fit.predict(new_configurations)  # predicted, interval, terms, extrapolated

The fits are the command line's (same options, defaults, checks and numbers for the same data
and seed), run in this process with the GIL released; Ctrl-C stops a fit at its next
generation. docs/python.md walks through it.
"""
from ._perfit import ConfigError, DataError, H5Error, IoError, MpiError, PerfitError
from ._api import Fit, Selection, batch_summary, fit, load, options, read_store, select, validate, write_store

__all__ = [
    "Fit", "Selection", "batch_summary", "fit", "load", "options", "read_store", "select", "validate",
    "write_store",
    "PerfitError", "ConfigError", "DataError", "H5Error", "IoError", "MpiError",
]
