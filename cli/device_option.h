// `--device NAME|FILE`: the latency model's device for optimize, compare and
// cost (cost/device_params.h). NAME is a device egret ships
// (egret/cost/devices/NAME.json, or its installed copy); FILE a device file
// `egret calibrate` wrote.
#ifndef EGRET_CLI_DEVICE_OPTION_H_
#define EGRET_CLI_DEVICE_OPTION_H_

#include <memory>
#include <string>

#include "egret/cost/device_params.h"

namespace egret::cli {

// The shipped devices' directory: share/egret/devices next to an installed
// egret, else this tree's egret/cost/devices.
std::string DefaultDevicesDir();

// The device `value` names, or null after a one-line error on stderr (an
// unknown name lists the shipped ones; a bad file names the file). An empty
// value is no device: returns null without an error, and *ok stays true.
std::shared_ptr<const cost::DeviceParams> DeviceOption(const std::string& value, bool* ok);

// The help text of --device.
inline constexpr char kDeviceHelp[] =
    "Price in predicted time on this device (the latency model, docs/cost-model.md): a shipped "
    "device (snapdragon-8-gen-3, snapdragon-8-elite, snapdragon-x-elite) or a device file made by "
    "`egret calibrate`. Default: the rule-cost model (HVX cycles)";

}  // namespace egret::cli

#endif  // EGRET_CLI_DEVICE_OPTION_H_
