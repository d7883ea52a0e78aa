import Ubiquity
print(UbiquityVersion.string)
