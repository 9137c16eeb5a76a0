# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "BOO"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".txt"]
config.excludes = ["CMakeLists.txt", "README.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.boo_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# `not`, `count` and FileCheck at the start of a RUN line are found via PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.boo_tools_dir, config.llvm_tools_dir]
tools = [
    "boo-opt",
    ToolSubst("boo-translate", unresolved="ignore"),
    ToolSubst("boo-run-module", unresolved="ignore"),
    ToolSubst("boo-driver", unresolved="ignore"),
    ToolSubst("boo-bench-cache", unresolved="ignore"),
    ToolSubst("boo-bench-rocdl-compile", unresolved="ignore"),
    ToolSubst("boo-module-fuzz", unresolved="ignore"),
    ToolSubst("boo-module-fuzz-asan", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The sanitizer build of the fuzz tool exists only where the compiler has
# the ASan/UBSan runtimes (scripts/setup.sh installs libclang-rt-22-dev);
# tests that need it say `REQUIRES: asan` and are reported unsupported
# otherwise.
if os.path.exists(os.path.join(config.boo_tools_dir, "boo-module-fuzz-asan")):
    config.available_features.add("asan")

# The benchmarks (bench/, BOO_BUILD_BENCHMARKS) are optional; tests that run
# one say `REQUIRES: benchmarks`.
if os.path.exists(os.path.join(config.boo_tools_dir, "boo-bench-rocdl-compile")):
    config.available_features.add("benchmarks")

# boo-driver's oneDNN reference backend exists where CMake found oneDNN
# (libdnnl-dev, which scripts/setup.sh installs); its tests say
# `REQUIRES: onednn`.
if config.boo_dnnl_library and not config.boo_dnnl_library.endswith("NOTFOUND"):
    config.available_features.add("onednn")
