// RUN: boo-opt %s -split-input-file -verify-diagnostics --boo-rocdl-serialize | FileCheck %s
// RUN: not boo-opt %s -split-input-file --boo-rocdl-serialize="lld=/nonexistent/ld.lld" 2>&1 | FileCheck %s --check-prefix=LLD

// A ROCDL kernel module becomes a gpu.binary holding an HSACO code object
// (an ELF shared object) and its kernel table; the launch gets its ABI
// record: arguments as host-function arguments ("argN") or device
// temporaries ("tmpN"), grid and workgroup sizes, LDS bytes.
// CHECK-LABEL: func.func @host(
// CHECK:         gpu.launch_func @k::@k
// CHECK-SAME:      boo.kernel_abi = {args = ["tmp0", "arg0"], dynamic_lds_bytes = 0 : i64, grid = array<i64: 4, 1, 1>, static_lds_bytes = 0 : i64, workgroup = array<i64: 64, 1, 1>}
// CHECK-NOT:     gpu.module
// CHECK:       gpu.binary @k [#gpu.object<#rocdl.target<chip = "gfx942">, kernels = <[#gpu.kernel_metadata<"k", !llvm.func<void (ptr, ptr)>
// CHECK-SAME:    private_segment_fixed_size = 0 : i64
// CHECK-SAME:    bin = "\7FELF
// LLD: error: boo-rocdl-serialize: '/nonexistent/ld.lld -shared' failed
module attributes {gpu.container_module} {
  func.func @host(%out: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %t = gpu.alloc () : memref<256xf32>
    gpu.launch_func @k::@k blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1) args(%t : memref<256xf32>, %out : memref<256xf32>)
    gpu.dealloc %t : memref<256xf32>
    return
  }
  gpu.module @k [#rocdl.target<chip = "gfx942">] {
    llvm.func @k(%in: !llvm.ptr, %out: !llvm.ptr) attributes {gpu.kernel, rocdl.kernel} {
      %tid = rocdl.workitem.id.x : i32
      %p = llvm.getelementptr %in[%tid] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      %q = llvm.getelementptr %out[%tid] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      %v = llvm.load %p : !llvm.ptr -> f32
      llvm.store %v, %q : f32, !llvm.ptr
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error@+1 {{boo-rocdl-serialize: the gpu.module has no target; run rocdl-attach-target first}}
  gpu.module @no_target {
  }
}
