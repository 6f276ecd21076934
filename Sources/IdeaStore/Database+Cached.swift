import GRDB

extension Database {
    /// Runs one SQL statement, prepared once per connection and reused. The store's hot
    /// paths (an edit, each idea of an import or a sync page) run the same few statements
    /// thousands of times, and preparing one costs more than running it.
    func run(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// The first row of a statement prepared once per connection and reused.
    func cachedRow(sql: String, arguments: StatementArguments = StatementArguments()) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }

    /// The first value of a statement prepared once per connection and reused.
    func cachedValue<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Value? {
        try Value.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }
}
