/// Which IdeaBox this binary is: `ideabox --version` and `-V` print it.
public enum BuildInfo {
    /// The release, raised by hand with each one.
    public static let version = "0.9.0"
    /// The commit built (the `BuildCommit` plugin reads it with git before each build), or
    /// `unknown` for a build outside a git checkout.
    public static let commit = buildCommit
}
