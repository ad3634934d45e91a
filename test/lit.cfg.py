# lit suite for ADPass.
#   test/<stage>/*.ll   IR tests: opt with the plugin, checked with FileCheck
#   test/integration/   C/C++ programs compiled with the plugin and run; each
#                       checks its derivatives against analytic values or
#                       central finite differences and exits non-zero if off
#   test/diagnostics/   programs the pass must reject, messages checked
#   test/runtime/       unit tests of libADRuntime
import glob
import os
import shutil
import subprocess
import sys
import lit.formats

config.name = "ADPass"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".ll", ".c", ".cpp", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ad_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))])

inc = os.path.join(config.ad_src_root, "include")
plugin = config.ad_plugin
runtime = config.ad_runtime
clang = os.path.join(config.llvm_bin, "clang")
clangxx = os.path.join(config.llvm_bin, "clang++")

# The tests run LLVM's verifier after every stage (-ad-verify-each), not only
# on what leaves the pass, so that a broken stage is named. clang parses
# -mllvm before it loads -fpass-plugin, hence the extra -load.
verify_each = "-Xclang -load -Xclang %s -mllvm -ad-verify-each" % plugin
config.substitutions.append(("%opt", os.path.join(config.llvm_bin, "opt")
                             + " -load-pass-plugin=" + plugin + " -ad-verify-each"))
# %adcc / %adcxx compile and link a program with the plugin and the runtime:
#   %adcc -O2 %s -o %t && %t
config.substitutions.append(("%adcc", "%s %s -fpass-plugin=%s -I%s -I%s/Inputs"
                             % (clang, verify_each, plugin, inc, os.path.join(config.test_source_root, "integration"))))
config.substitutions.append(("%adcxx", "%s %s -fpass-plugin=%s -I%s -I%s/Inputs"
                             % (clangxx, verify_each, plugin, inc, os.path.join(config.test_source_root, "integration"))))
config.substitutions.append(("%adlibs", "%s -lm" % runtime))
config.substitutions.append(("%clang", clang))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%llvm_bin", config.llvm_bin))
config.substitutions.append(("%adplugin", plugin))
config.substitutions.append(("%inc", inc))
config.substitutions.append(("%runtime", runtime))
# test/install/ installs this build (cmake --install %ad_obj_root) and builds
# a user's project against it, with Ninja when it is there.
config.substitutions.append(("%ad_obj_root", config.ad_obj_root))
config.substitutions.append(("%cmake_generator",
                             "-G Ninja" if shutil.which("ninja")
                             else '-G "Unix Makefiles"'))

# eigen: Eigen's headers are installed (libeigen3-dev; tools/install-deps.sh
# installs them).
if os.path.isdir("/usr/include/eigen3/Eigen"):
    config.available_features.add("eigen")

# openmp: clang's OpenMP runtime is installed (libomp-19-dev;
# tools/install-deps.sh installs it), so tests may build with -fopenmp.
llvm_lib = os.path.join(os.path.dirname(config.llvm_bin), "lib")
if os.path.exists(os.path.join(llvm_lib, "libomp.so")) and os.path.exists(
        os.path.join(llvm_lib, "clang", "19", "include", "omp.h")):
    config.available_features.add("openmp")

# cpu-fma: this machine runs FMA instructions, so tests may build for a
# target with FMA (-mfma), where llvm.fmuladd is fused.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("flags"):
                if "fma" in line.split(":", 1)[1].split():
                    config.available_features.add("cpu-fma")
                break
except OSError:
    pass

# gcc: GCC's C and C++ compilers are installed, to check that a project
# configured with them is refused.
if shutil.which("gcc") and shutil.which("g++"):
    config.available_features.add("gcc")


def clang_major(clang_path):
    try:
        out = subprocess.run([clang_path, "-dumpversion"], capture_output=True,
                             text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.split(".")[0].strip() or None


# other-clang: a clang of another LLVM major version is installed, which
# cannot load the plugin: %other_clang / %other_clangxx name it.
own_major = clang_major(clang)
# llvm-N: the LLVM major version the plugin is built for and tested with.
if own_major:
    config.available_features.add("llvm-" + own_major)
for other_bin in sorted(glob.glob("/usr/lib/llvm-*/bin")):
    other_clang = os.path.join(other_bin, "clang")
    other_clangxx = os.path.join(other_bin, "clang++")
    if not (os.access(other_clang, os.X_OK) and os.access(other_clangxx, os.X_OK)):
        continue
    other_major = clang_major(other_clang)
    if own_major and other_major and other_major != own_major:
        config.available_features.add("other-clang")
        config.substitutions.append(("%other_clangxx", other_clangxx))
        config.substitutions.append(("%other_clang", other_clang))
        break
