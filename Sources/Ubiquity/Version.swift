public enum UbiquityVersion { public static let string = "0.1.0" }
