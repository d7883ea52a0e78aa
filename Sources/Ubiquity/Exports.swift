// Clients write `import Ubiquity` and see the whole library: the layers below the coordinator
// and the plist values that logs and formats are made of.
@_exported import UbiquitySync
@_exported import UbiquityCore
@_exported import UbiquityBase
@_exported import UbiquityPlist
