import ServerStore
import Testing

/// `FieldTypeClaim`: a claim of field types as both stores decide it, over plain values with
/// no store and no database (issue 61).
@Suite struct FieldTypeClaimTests {
    @Test("A field keeps the type the schema holds; the others take the claimed type, record type by record type in name order")
    func storedTypesWin() throws {
        var claim = FieldTypeClaim(["Note": ["b": "STRING", "a": "INT64"], "Idea": ["x": "DOUBLE"]])
        #expect(claim.recordTypes == ["Idea", "Note"])
        #expect(claim.fieldNames(of: "Note") == ["a", "b"])
        claim.keep(["a": "STRING"], of: "Note")
        #expect(claim.newFields(of: "Note") == ["b"])
        let added = try claim.add(["b"], to: "Note", fieldsInType: 1, fieldsInDatabase: 1)
        #expect(added.map { "\($0.fieldName):\($0.type)" } == ["b:STRING"])
        claim.keep(["b": "STRING"], of: "Note")
        claim.keep([:], of: "Idea")
        #expect(claim.claimed == ["Note": ["a": "STRING", "b": "STRING"]])
    }

    @Test("New fields past a record type's or a database's limit refuse the claim; the database is counted once and with each record type's additions")
    func limits() throws {
        var claim = FieldTypeClaim(["A": ["f": "STRING"], "B": ["g": "STRING", "h": "STRING"]])
        #expect(throws: FieldTypeLimitExceeded.self) {
            try claim.add(["f"], to: "A", fieldsInType: FieldTypeLimits.fieldsPerRecordType, fieldsInDatabase: 0)
        }
        #expect(claim.fieldsInDatabase == nil, "a refused addition counts nothing")
        _ = try claim.add(["f"], to: "A", fieldsInType: 0, fieldsInDatabase: FieldTypeLimits.fieldsPerDatabase - 2)
        #expect(claim.fieldsInDatabase == FieldTypeLimits.fieldsPerDatabase - 1)
        // The count given for B is not read again: the claim's own is what holds.
        #expect(throws: FieldTypeLimitExceeded.self) { try claim.add(["g", "h"], to: "B", fieldsInType: 0, fieldsInDatabase: 0) }
    }
}
