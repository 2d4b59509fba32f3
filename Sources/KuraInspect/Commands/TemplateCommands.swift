// The model's fetch request templates: listed, and run with values.

extension SessionCommand {
    static let templates = SessionCommand(
        "templates", section: .reading, help: "templates                 fetch request templates and their variables"
    ) { input throws(CommandError) in
        try input.none()
        return { session in session.showTemplates(); return true }
    }

    /// `template NAME var=value …`.
    static let template = SessionCommand(
        "template", section: .reading, help: "template NAME var=value … run a template"
    ) { input throws(CommandError) in
        guard let name = input.words.first else {
            throw CommandError(message: "template needs a name: template NAME var=value …")
        }
        let arguments = try input.words.dropFirst().map { word throws(CommandError) in
            let text = word.text
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw CommandError(message: "expected var=value, found '\(text)'", position: word.start)
            }
            let value = CommandTokenizer.Word(text: String(text[text.index(after: equals)...]), start: 0, end: 0, isTopLevel: true).unquoted
            return TemplateArgument(name: String(text[..<equals]), value: value)
        }
        return { session in try session.fetch(try session.templateRequest(name.unquoted, arguments)); return true }
    }
}

/// `name=value` of the `template` command.
struct TemplateArgument: Equatable {
    var name: String
    var value: String
}
