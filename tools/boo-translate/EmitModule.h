//===- EmitModule.h - boo-translate --emit-module ---------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TOOLS_BOOTRANSLATE_EMITMODULE_H
#define BOO_TOOLS_BOOTRANSLATE_EMITMODULE_H

namespace mlir::boo {
/// `boo-translate --emit-module ...`; returns the exit code.
int emitModuleMain(int argc, char **argv);
} // namespace mlir::boo

#endif // BOO_TOOLS_BOOTRANSLATE_EMITMODULE_H
