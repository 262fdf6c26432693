"""Builds the extension perfit._perfit with CMake for pip (pyproject.toml has the metadata).

With PERFIT_BUILD_DIR set to a configured perfit build tree (cmake -S . -B build ...), its
`_perfit` target is built there and copied (fast: nothing is rebuilt that is up to date);
otherwise a Release build is configured under pip's build directory (a few minutes).
"""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("PERFIT_BUILD_DIR")
        if not build:
            build = os.path.join(os.path.abspath(self.build_temp), "cmake")
            subprocess.check_call(["cmake", "-S", SOURCE, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DBUILD_TESTING=OFF", f"-DPython_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", build, "--target", "_perfit", "-j", str(os.cpu_count() or 2)])
        built = glob.glob(os.path.join(build, "python", "perfit", "_perfit*.so"))
        if not built:
            raise RuntimeError(f"the CMake build in '{build}' made no python/perfit/_perfit*.so")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


# setuptools' own build directory: not ./build, which the README's CMake build uses
os.makedirs(os.path.join(SOURCE, "build-pip"), exist_ok=True)
setup(ext_modules=[Extension("perfit._perfit", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}})
