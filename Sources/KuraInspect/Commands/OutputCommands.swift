// How results are printed: sqlite3's settings, by the same names.

extension SessionCommand {
    static let mode = SessionCommand(
        "mode", aliases: [".mode"], section: .output, help: "mode table|line|csv|json|jsonl    headers on|off    timer on|off"
    ) { input throws(CommandError) in
        let name = try input.single("mode").lowercased()
        guard let mode = OutputMode(rawValue: name == "column" || name == "box" ? "table" : name) else {
            throw CommandError(message: "mode takes table, line, csv, json or jsonl", position: input.words[0].start)
        }
        return { session in session.mode = mode; return true }
    }

    static let headers = SessionCommand("headers", aliases: [".headers", ".header"], section: .output, help: nil) { input throws(CommandError) in
        let on = try input.onOff("headers")
        return { session in session.showsHeaders = on; return true }
    }

    static let timer = SessionCommand("timer", aliases: [".timer"], section: .output, help: nil) { input throws(CommandError) in
        let on = try input.onOff("timer")
        return { session in session.isTimerOn = on; return true }
    }

    static let width = SessionCommand(
        "width", aliases: [".width"], section: .output, help: "width N|auto|off          table width (auto: the terminal's)"
    ) { input throws(CommandError) in
        let width: OutputWidth
        switch try input.single("width").lowercased() {
        case "auto", "terminal": width = .terminal
        case "off", "none", "unlimited", "0": width = .unlimited
        case let text:
            guard let columns = Int(text), columns >= 20 else {
                throw CommandError(message: "width takes a number of columns (20 or more), auto or off", position: input.words[0].start)
            }
            width = .columns(columns)
        }
        return { session in session.width = width; return true }
    }

    /// How no value shows in tables and the line mode (sqlite3's `.nullvalue`).
    static let nullValue = SessionCommand(
        "nullvalue", aliases: [".nullvalue"], section: .output, help: "nullvalue TEXT            how no value shows (nil; \"\" for nothing)"
    ) { input throws(CommandError) in
        let text = try input.single("text")
        return { session in session.nullDisplay = text; return true }
    }

    /// Print each fetch's and count's plan before its results (sqlite3's `.eqp on`).
    static let explain = SessionCommand(".eqp", section: .output, help: nil) { input throws(CommandError) in
        let on = try input.onOff(".eqp")
        return { session in session.showsPlans = on; return true }
    }
}
