// The flags compare and view share: which recordings, which frames, which regions of interest
// and how points are associated (compare/compare_inputs.h).
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "command.h"
#include "lidartwin/base/status.h"
#include "lidartwin/compare/compare_inputs.h"

namespace lt::cli {

// The inputs' keys and the flags that set them (CompareInputs::Validate's errors).
extern const OptionFlags kCompareInputKeys;

// The valued flags of compare_inputs (for ArgSpec).
const std::set<std::string>& CompareInputFlags();

// --real, --sim and the rest into CompareInputs; every number checked against its documented
// range (an error names its flag, or its key of kCompareInputKeys).
Expected<compare::CompareInputs> ParseCompareInputs(const Args& args);

// base's CheckOutputsApart over compare's inputs (--real, --sim, the sidecar, --rois, --scene).
Status CheckOutputsApart(const Args& args,
                         const std::vector<std::pair<std::string, std::string>>& outputs);

}  // namespace lt::cli
