/// One model — folders holding notes — as Xcode 4 and Xcode 15 save it, with fetch request
/// templates, a fetched property and configurations.
enum FetchRequestTemplateFixtures {
    /// Xcode 4's style: `syncable`, `macOSVersion`/`iOSVersion`, the diagram's `<elements>`.
    static let xcode4 = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model name="" userDefinedModelVersionIdentifier="" type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1811" systemVersion="11D50" minimumToolsVersion="Automatic" macOSVersion="Automatic" iOSVersion="Automatic">
            <entity name="Folder" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String" syncable="YES"/>
                <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="folder" inverseEntity="Note" syncable="YES"/>
                <fetchedProperty name="longNotes" optional="YES" syncable="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Note" predicateString="folder == $FETCH_SOURCE AND pages &gt; 10"/>
                </fetchedProperty>
            </entity>
            <entity name="Note" syncable="YES">
                <attribute name="pages" optional="YES" attributeType="Integer 32" defaultValueString="0" syncable="YES"/>
                <attribute name="title" optional="YES" attributeType="String" syncable="YES"/>
                <relationship name="folder" optional="YES" minCount="1" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder" syncable="YES"/>
            </entity>
            <entity name="Setting" syncable="YES">
                <attribute name="value" optional="YES" attributeType="String" syncable="YES"/>
            </entity>
            <fetchRequest name="LongerThan" entity="Note" predicateString="pages &gt;= $PAGES" fetchLimit="2"/>
            <fetchRequest name="NotesTitled" entity="Note" predicateString="title == $TITLE"/>
            <configuration name="Cloud">
                <memberEntity name="Folder"/>
                <memberEntity name="Note"/>
            </configuration>
            <configuration name="Local">
                <memberEntity name="Setting"/>
            </configuration>
            <elements>
                <element name="Folder" positionX="160" positionY="192" width="128" height="75"/>
                <element name="Note" positionX="360" positionY="192" width="128" height="90"/>
                <element name="Setting" positionX="160" positionY="320" width="128" height="60"/>
            </elements>
        </model>
        """

    /// Xcode 15's style: class names, code generation, scalar types, every template flag.
    static let xcode15 = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23B81" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <configuration name="Cloud" usedWithCloudKit="YES">
                <memberEntity name="Note"/>
                <memberEntity name="Folder"/>
            </configuration>
            <configuration name="Local">
                <memberEntity name="Setting"/>
            </configuration>
            <entity name="Folder" representedClassName="Folder" syncable="YES" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
                <fetchedProperty name="longNotes" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Note" predicateString="folder == $FETCH_SOURCE AND pages &gt; 10"/>
                </fetchedProperty>
            </entity>
            <entity name="Note" representedClassName="Note" syncable="YES" codeGenerationType="class">
                <attribute name="pages" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
            </entity>
            <entity name="Setting" representedClassName="Setting" syncable="YES" codeGenerationType="class">
                <attribute name="value" optional="YES" attributeType="String"/>
            </entity>
            <fetchRequest name="LongerThan" entity="Note" predicateString="pages &gt;= $PAGES" fetchLimit="2" fetchBatchSize="20" includeSubentities="YES" includePropertyValues="YES" includePendingChanges="YES" returnObjectsAsFaults="YES" returnDistinctResults="YES" resultType="0"/>
            <fetchRequest name="NotesTitled" entity="Note" predicateString="title == $TITLE"/>
        </model>
        """

    /// The same model without templates, fetched properties or configurations.
    static let plain = xcode15
        .split(separator: "\n", omittingEmptySubsequences: false)
        .filter { line in !["configuration", "memberEntity", "fetchRequest", "fetchedProperty"].contains { line.contains("<\($0)") || line.contains("</\($0)") } }
        .joined(separator: "\n")
}
