//===- EmuRaceDetector.cpp - LDS data races within a workgroup ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "EmuRaceDetector.h"

#include <limits>

using namespace boo::emu;

void RaceDetector::beginWorkgroup(uint64_t bytes) {
  if (cells.size() < bytes)
    cells.resize(bytes);
  advance();
}

void RaceDetector::advance() {
  if (epoch == std::numeric_limits<uint32_t>::max()) {
    // After 2^32 epochs, old stamps could look current again: forget them.
    cells.assign(cells.size(), Cell());
    epoch = 0;
  }
  ++epoch;
}
