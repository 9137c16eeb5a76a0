// PLACEHOLDER (scaffolding): replaced by the GPU code generation work.
#include "Boo/Transforms/Passes.h"
#include "Boo/Transforms/Pipelines.h"
using namespace mlir;
void boo::buildROCDLPipeline(OpPassManager &pm,
                             const ROCDLPipelineOptions &options) {
  pm.addPass(createBooSelectLoweringConfig());
  pm.addPass(createBooGPUDistribute());
}
