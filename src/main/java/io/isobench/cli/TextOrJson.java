package io.isobench.cli;

/** The {@code --format} of the commands that print text or JSON: {@code plan simulate}, {@code tasks lint}, {@code review}. */
enum TextOrJson { text, json }
