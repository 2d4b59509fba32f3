#ifndef KURA_CLINEEDIT_SHIM_H
#define KURA_CLINEEDIT_SHIM_H

// libedit's readline interface, with small functions around its global
// variables: Swift 6 refuses to touch mutable C globals directly.

#include <stdio.h>
#include <stdlib.h>
#include <editline/readline.h>

/// Produces completion candidates: called with state 0, 1, 2, ... until it
/// returns NULL; each result must be allocated with malloc.
typedef char *_Nullable (*kura_completion_generator)(const char *_Nonnull text, int state);

static kura_completion_generator _Nullable kura_generator = NULL;

static inline char *_Nullable kura_generate(const char *_Nonnull text, int state) {
    return kura_generator ? kura_generator(text, state) : NULL;
}

static inline char *_Nullable *_Nullable kura_attempt_completion(const char *_Nonnull text, int start, int end) {
    (void)start;
    (void)end;
    return rl_completion_matches(text, kura_generate);
}

/// Names the program for libedit and installs the completion generator.
static inline void kura_line_editor_setup(const char *_Nonnull name, kura_completion_generator _Nonnull generator) {
    rl_readline_name = name;
    kura_generator = generator;
    rl_attempted_completion_function = kura_attempt_completion;
    rl_completion_entry_function = kura_generate;
    rl_completion_append_character = ' ';
    // A word runs through '.' and '@', so key paths (`author.name`,
    // `tags.@count`) complete as one word.
    rl_basic_word_break_characters = " \t\n\"\\'`$><=;|&{}(),!";
    // Kura handles Ctrl-C itself: libedit's handler would re-send the
    // signal to the whole process group and end the session.
    rl_catch_signals = 0;
}

/// Whether a lone completion gets a space after it (libedit reads this
/// after calling the generator).
static inline void kura_set_completion_appends_space(int appends) {
    rl_completion_append_character = appends ? ' ' : '\0';
}

/// The line being edited, and the cursor's offset in it.
static inline const char *_Nullable kura_line_buffer(void) { return rl_line_buffer; }
static inline int kura_line_point(void) { return rl_point; }

#endif
