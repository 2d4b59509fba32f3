/// Kura's version, as `kura --version` prints it and the README and
/// CHANGELOG state it.
public enum KuraVersion {
    /// The version of this build of Kura: `major.minor.patch`.
    public static let current = "0.10.1"
}
