// Library users configure log formats and read plist values; they should not need a second import.
@_exported import UbiquityPlist
