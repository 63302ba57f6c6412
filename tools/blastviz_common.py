"""Shared by the plot scripts of tools/ (plot_sedov.py, plot_lineout.py, plot_energy.py):
their Python modules and the dump files of their inputs. Not a script; they import it from
their own folder.
"""
import os
import sys


def plot_modules(script):
    """(numpy, h5py, matplotlib). Where the python3 running `script` lacks them (e.g. a
    pyenv/conda python3 first on PATH), re-runs it once with Debian's /usr/bin/python3;
    exits with a message naming `script` and the packages when that is no help."""
    try:
        import numpy
        import h5py
        import matplotlib
    except ImportError:
        if os.path.exists("/usr/bin/python3") and os.path.realpath(
                sys.executable) != os.path.realpath("/usr/bin/python3") and not os.environ.get(
                    "BLAST_PLOT_REEXEC"):
            os.environ["BLAST_PLOT_REEXEC"] = "1"
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit("%s needs numpy, h5py and matplotlib "
                 "(apt-get install python3-numpy python3-h5py python3-matplotlib)" % script)
    return numpy, h5py, matplotlib


def series_file(path):
    """The time series blast.xdmf of a viz folder; any other path as it is."""
    return os.path.join(path, "blast.xdmf") if os.path.isdir(path) else path


def dumps_of(path):
    """Dump files of a dump, an XDMF time series or a viz folder (in time order)."""
    path = series_file(path)
    if not path.endswith(".xdmf"):
        return [path]
    import xml.etree.ElementTree as ET
    files = [d.text.strip().split(":")[0] for d in ET.parse(path).getroot().iter("DataItem")
             if d.text and d.text.strip().endswith(":/coordinates")]
    return [os.path.join(os.path.dirname(path), f) for f in files]


def newest_dump(path):
    """A dump file from a dump, an XDMF time series (its newest dump) or their folder."""
    files = dumps_of(path)
    if not files:
        sys.exit("%s lists no dump" % series_file(path))
    return files[-1]
