import Testing
@testable import UbiquityPlist
