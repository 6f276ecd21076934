/// The CloudKit containers of IdeaBox itself: what `serve` serves and what `account sign-in`
/// names unless told otherwise. Configuration of this executable, handed to the server and
/// the client, which know no product.
enum ProductContainer {
    /// The product's container.
    static let id = "iCloud.com.buildwithharry.IdeaBox"
    /// The container IdeaBox named before it used the product's: a server serving `id`
    /// serves it too, as the same data, and an account file from before containers were
    /// named reaches it, so devices signed in before the rename keep syncing.
    static let legacy = "iCloud.ideabox"
}
