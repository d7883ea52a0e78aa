import Foundation
import Testing
import UbiquityPlist
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// Core Data's validation: on save, with an error naming the entity, the property and the
/// rule; and again on import, where a log that breaks the model is quarantined.
@Suite("Validation on save and on import")
struct ValidationTests {
    static func model(rules: Bool = true) -> ObjectModel {
        func v(_ validation: AttributeValidation) -> AttributeValidation { rules ? validation : AttributeValidation() }
        return try! ObjectModel(name: "Shop", entities: [
            EntityDescription("Product", attributes: [
                AttributeDescription("name", .string, optional: false, default: .string("item"),
                                     validation: v(AttributeValidation(minLength: 1, maxLength: 8))),
                AttributeDescription("code", .string, validation: v(AttributeValidation(pattern: "[A-Z]{3}-[0-9]+"))),
                AttributeDescription("stock", .integer16, validation: v(AttributeValidation(minimum: .integer(0)))),
                AttributeDescription("views", .integer32),
                AttributeDescription("price", .decimal, validation: v(AttributeValidation(minimum: .decimal(.zero), maximum: .decimal(DecimalNumber("9999.99")!)))),
                AttributeDescription("score", .double, validation: v(AttributeValidation(minimum: .double(0), maximum: .double(1)))),
                AttributeDescription("released", .date, validation: v(AttributeValidation(minimum: .date(secondsSince1970: 0)))),
                AttributeDescription("thumbnail", .binary, validation: v(AttributeValidation(maxLength: 4))),
                AttributeDescription("draft", .string, transient: true),
            ], relationships: [
                RelationshipDescription("maker", destination: "Maker", inverse: "products", optional: !rules),
                RelationshipDescription("parts", destination: "Part", toMany: true, minCount: rules ? 1 : 0, maxCount: rules ? 2 : 0),
            ]),
            EntityDescription("Maker", relationships: [RelationshipDescription("products", destination: "Product", inverse: "maker", toMany: true)]),
            EntityDescription("Part"),
        ])
    }

    /// A product that passes every rule, in a fresh store; `change` breaks one.
    func save(_ change: (ManagedObject) throws -> Void) throws {
        let cloud = try TestCloud(model: Self.model(), contentName: "Shop")
        let context = try cloud.peer("a").newContext()
        let maker = try context.insert("Maker", key: "m")
        let part = try context.insert("Part", key: "p")
        try context.save()
        let product = try context.insert("Product", key: "x")
        try product.setTarget(maker.id, of: "maker")
        try product.add(part.id, to: "parts")
        try change(product)
        try context.save()
    }

    @Test func aValidObjectSaves() throws {
        try save { product in
            product["code"] = .string("ABC-12")
            product["price"] = .decimal(DecimalNumber("9999.99")!)
            product["draft"] = .string("kept in memory only")
        }
    }

    @Test(arguments: [
        ("name", AttributeValue.string(""), ValidationError.tooShort(entity: "Product", property: "name", length: 0, minimum: 1)),
        ("name", .string("ninechars"), .tooLong(entity: "Product", property: "name", length: 9, maximum: 8)),
        ("name", .string("é́é́é́é́é"), .tooLong(entity: "Product", property: "name", length: 9, maximum: 8)),
        ("code", .string("abc-12"), .patternMismatch(entity: "Product", property: "code", pattern: "[A-Z]{3}-[0-9]+")),
        ("code", .string("ABC-12 and more"), .patternMismatch(entity: "Product", property: "code", pattern: "[A-Z]{3}-[0-9]+")),
        ("stock", .integer(-1), .belowMinimum(entity: "Product", property: "stock", value: "-1", minimum: "0")),
        ("stock", .integer(32768), .outOfRange(entity: "Product", property: "stock", type: .integer16, value: 32768)),
        ("views", .integer(-2_147_483_649), .outOfRange(entity: "Product", property: "views", type: .integer32, value: -2_147_483_649)),
        ("price", .decimal(DecimalNumber("10000")!), .aboveMaximum(entity: "Product", property: "price", value: "10000", maximum: "9999.99")),
        ("price", .decimal(DecimalNumber("-0.01")!), .belowMinimum(entity: "Product", property: "price", value: "-0.01", minimum: "0")),
        ("score", .double(.nan), .notFinite(entity: "Product", property: "score")),
        ("released", .date(secondsSince1970: .infinity), .notFinite(entity: "Product", property: "released")),
        ("score", .double(1.5), .aboveMaximum(entity: "Product", property: "score", value: "1.5", maximum: "1.0")),
        ("released", .date(secondsSince1970: -1), .belowMinimum(entity: "Product", property: "released", value: "1969-12-31T23:59:59.000Z", minimum: "1970-01-01T00:00:00.000Z")),
        ("thumbnail", .binary([1, 2, 3, 4, 5]), .tooLong(entity: "Product", property: "thumbnail", length: 5, maximum: 4)),
    ])
    func aBrokenRuleStopsTheSaveNamingEntityPropertyAndRule(_ property: String, _ value: AttributeValue, _ expected: ValidationError) throws {
        #expect(throws: expected) { try self.save { try $0.setValue(value, for: property) } }
        #expect(expected.entity == "Product" && expected.property == property)
    }

    @Test func requiredValuesAndRelationshipCountsAreChecked() throws {
        #expect(throws: ValidationError.missingValue(entity: "Product", property: "name")) {
            try self.save { $0["name"] = nil }
        }
        #expect(throws: ValidationError.missingValue(entity: "Product", property: "maker")) {
            try self.save { try $0.setTarget(nil, of: "maker") }
        }
        #expect(throws: ValidationError.tooFewMembers(entity: "Product", property: "parts", count: 0, minimum: 1)) {
            try self.save { try $0.remove(GlobalID(entity: "Part", key: "p"), from: "parts") }
        }
        #expect(throws: ValidationError.tooManyMembers(entity: "Product", property: "parts", count: 3, maximum: 2)) {
            try self.save { product in
                for key in ["q", "r"] { try product.add(try product.context.insert("Part", key: key).id, to: "parts") }
            }
        }
        #expect(throws: ValidationError.wrongType(entity: "Product", property: "stock", expected: .integer16, found: .string)) {
            try self.save { try $0.setValue(.string("12"), for: "stock") }
        }
    }

    /// Deleting a saved product's maker leaves the product without its required maker: the
    /// save that deletes the maker checks the product, which did not change itself.
    @Test func deletingARequiredTargetIsRefused() throws {
        let cloud = try TestCloud(model: Self.model(), contentName: "Shop")
        let context = try cloud.peer("a").newContext()
        let maker = try context.insert("Maker", key: "m"), part = try context.insert("Part", key: "p")
        let product = try context.insert("Product", key: "x")
        try product.setTarget(maker.id, of: "maker")
        try product.add(part.id, to: "parts")
        try context.save()
        context.delete(try #require(try context.object(maker.id)))
        #expect(throws: ValidationError.missingValue(entity: "Product", property: "maker")) { try context.save() }
    }

    @Test func transientValuesStayInTheContext() throws {
        let cloud = try TestCloud(model: Self.model(), contentName: "Shop")
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        let context = a.newContext()
        let maker = try context.insert("Maker", key: "m"), part = try context.insert("Part", key: "p")
        let product = try context.insert("Product", key: "x")
        try product.setTarget(maker.id, of: "maker")
        try product.add(part.id, to: "parts")
        product["draft"] = .string("scratch")
        #expect(product["draft"] == .string("scratch"))
        let log = try #require(try context.save())
        #expect(log.inserted.first { $0.id == product.id }?.values["draft"] == nil, "a transient value is never logged")
        _ = try b.sync()
        let seen = try #require(try b.store.snapshot(of: product.id))
        #expect(seen.values["draft"] == nil)
        #expect(try b.newContext().object(product.id)?["draft"] == nil)
    }

    /// Validation rules are not part of the model hash (as in Core Data): a peer whose model
    /// adds a rule reads the same folder, and quarantines a log that breaks its rule.
    @Test func aLogThatBreaksTheModelIsQuarantinedNeverApplied() throws {
        #expect(Self.model(rules: false).hash != Self.model(rules: true).hash, "optionality and counts are hashed")
        let lenient = try ObjectModel(name: "Shop", entities: Self.model(rules: true).declaredEntities.map { entity in
            var entity = entity
            entity.attributes = entity.attributes.map { var a = $0; a.validation = AttributeValidation(); return a }
            return entity
        })
        #expect(lenient.hash == Self.model(rules: true).hash)
        let strictCloud = try TestCloud(model: Self.model(rules: true), contentName: "Shop")
        let writer = try UbiquityPeer(configuration: {
            _ = try Device.create(at: strictCloud.devicePath("writer"), userName: "writer", identityToken: Device.defaultAccount)
            var configuration = strictCloud.configuration("writer")
            configuration.model = lenient
            return configuration
        }())
        let reader = try strictCloud.peer("reader")
        let context = writer.newContext()
        let maker = try context.insert("Maker", key: "m"), part = try context.insert("Part", key: "p")
        let product = try context.insert("Product", key: "x")
        try product.setTarget(maker.id, of: "maker")
        try product.add(part.id, to: "parts")
        product["stock"] = .integer(-5)
        try context.save()
        let summary = try reader.sync()
        #expect(summary.imported.quarantined.count == 1)
        #expect(summary.imported.quarantined.first?.reason == "record Product/x breaks the model: Product.stock is -5, below its minimum 0")
        #expect(try reader.store.snapshot(of: product.id) == nil)
    }

    /// The narrow integers are range-checked on import too, whatever the writer's rules.
    @Test func aLogValueOutsideItsIntegerTypeIsRefused() throws {
        let model = Self.model()
        var log = TransactionLog(peerID: "p~1", transactionNumber: 1, knowledge: KnowledgeVector(["p~1": 1]),
                                 stamp: Stamp("0000001700000000.00000000.p~1")!, transactionDate: 0,
                                 modelVersionHash: model.hash, storeName: "S", contentName: "Shop",
                                 inserted: [], updated: [ChangeRecord(id: try GlobalID(entity: "Product", key: "x"), values: ["stock": .integer(70000)])],
                                 deleted: [])
        #expect(throws: LogError.breaksModel(record: "Product/x", .outOfRange(entity: "Product", property: "stock", type: .integer16, value: 70000))) {
            try TransactionLog(decoding: log.encoded(format: .binary), model: model)
        }
        log.updated = [ChangeRecord(id: try GlobalID(entity: "Product", key: "x"), values: ["name": AttributeValue?.none])]
        #expect(throws: LogError.breaksModel(record: "Product/x", .missingValue(entity: "Product", property: "name"))) {
            try TransactionLog(decoding: log.encoded(format: .binary), model: model)
        }
        log.updated = [ChangeRecord(id: try GlobalID(entity: "Product", key: "x"), values: ["draft": .string("t")])]
        #expect(throws: LogError.malformed("record Product/x sets unknown attribute 'draft'")) {
            try TransactionLog(decoding: log.encoded(format: .binary), model: model)
        }
    }
}
