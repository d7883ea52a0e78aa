import Testing
@testable import Ubiquity
