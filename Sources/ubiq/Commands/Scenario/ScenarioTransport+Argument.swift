import ArgumentParser
import Ubiquity
import UbiquitySimulation

extension ScenarioTransport: ExpressibleByArgument {}
