// boo-set-target is the one place a GPU compilation names its chip: it
// records it as the module's #boo.target, which every later pass reads.

// RUN: rm -rf %t && split-file %s %t
// A module without a target gets the option's chip; without a chip it is an
// error, as is a chip the table does not have.
// RUN: boo-opt %t/none.mlir --boo-set-target=chip=gfx1100 | FileCheck %s --check-prefix=SET
// RUN: not boo-opt %t/none.mlir --boo-set-target 2>&1 | FileCheck %s --check-prefix=NOCHIP
// RUN: not boo-opt %t/none.mlir --boo-set-target=chip=gfx000 2>&1 | FileCheck %s --check-prefix=BADCHIP
// A module prepared for a chip keeps it: no chip or the same chip is
// accepted, another one is an error.
// RUN: boo-opt %t/gfx942.mlir --boo-set-target | FileCheck %s --check-prefix=KEEP
// RUN: boo-opt %t/gfx942.mlir --boo-set-target=chip=gfx942 | FileCheck %s --check-prefix=KEEP
// RUN: not boo-opt %t/gfx942.mlir --boo-set-target=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=OTHER

// SET:     module attributes {boo.target = #boo.target<chip = "gfx1100">}
// NOCHIP:  error: boo-set-target: no chip (set chip=, or put a #boo.target on the module)
// BADCHIP: error: boo-set-target: unsupported chip 'gfx000'; supported: gfx90a, gfx942, gfx950, gfx1100, gfx1201
// KEEP:    module attributes {boo.target = #boo.target<chip = "gfx942">}
// OTHER:   error: boo-set-target: chip=gfx90a but the module targets gfx942

//--- none.mlir
module {
  func.func @f() {
    return
  }
}

//--- gfx942.mlir
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @g() {
    return
  }
}
