package io.isobench.loadgen;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/**
 * Streaming JSON reading of one OpenAI response object (a stream chunk or a whole response): validates the JSON and
 * pulls out only what the metrics need, without building a tree.
 */
final class ChunkParser {

    private static final JsonFactory FACTORY = new JsonFactory();

    boolean hasChoices;
    String text;
    String finishReason;
    int promptTokens;
    int completionTokens;
    String error;

    private void reset() {
        hasChoices = false;
        text = null;
        finishReason = null;
        promptTokens = -1;
        completionTokens = -1;
        error = null;
    }

    /** Parses one object; throws {@link IOException} when the bytes are not one well-formed JSON object. */
    void parse(byte[] b, int off, int len) throws IOException {
        reset();
        try (JsonParser p = FACTORY.createParser(b, off, len)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                switch (name) {
                    case "choices" -> {
                        if (t == JsonToken.START_ARRAY) {
                            boolean first = true;
                            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                                if (t == null) {
                                    throw new IOException("unexpected end of JSON");
                                }
                                if (first && t == JsonToken.START_OBJECT) {
                                    hasChoices = true;
                                    choice(p);
                                } else {
                                    hasChoices = true;
                                    p.skipChildren();
                                }
                                first = false;
                            }
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "usage" -> {
                        if (t == JsonToken.START_OBJECT) {
                            while (p.nextToken() == JsonToken.FIELD_NAME) {
                                String u = p.currentName();
                                JsonToken v = p.nextToken();
                                if (v == JsonToken.VALUE_NUMBER_INT && u.equals("prompt_tokens")) {
                                    promptTokens = p.getIntValue();
                                } else if (v == JsonToken.VALUE_NUMBER_INT && u.equals("completion_tokens")) {
                                    completionTokens = p.getIntValue();
                                } else {
                                    p.skipChildren();
                                }
                            }
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "error" -> {
                        if (t == JsonToken.VALUE_STRING) {
                            error = p.getText();
                        } else if (t == JsonToken.START_OBJECT) {
                            error = "error";
                            while (p.nextToken() == JsonToken.FIELD_NAME) {
                                String f = p.currentName();
                                JsonToken v = p.nextToken();
                                if (f.equals("message") && v == JsonToken.VALUE_STRING) {
                                    error = p.getText();
                                } else {
                                    p.skipChildren();
                                }
                            }
                        } else if (t != JsonToken.VALUE_NULL) {
                            error = p.getText();
                            p.skipChildren();
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw new IOException("trailing data after the JSON object");
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException(e.getOriginalMessage(), e);
        }
    }

    private void choice(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            switch (name) {
                case "text" -> {
                    if (t == JsonToken.VALUE_STRING) {
                        text = p.getText();
                    } else {
                        p.skipChildren();
                    }
                }
                case "delta", "message" -> {
                    if (t == JsonToken.START_OBJECT) {
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String f = p.currentName();
                            JsonToken v = p.nextToken();
                            if ((f.equals("content") || f.equals("reasoning_content")) && v == JsonToken.VALUE_STRING) {
                                text = text == null ? p.getText() : text + p.getText();
                            } else {
                                p.skipChildren();
                            }
                        }
                    } else {
                        p.skipChildren();
                    }
                }
                case "finish_reason" -> {
                    if (t == JsonToken.VALUE_STRING) {
                        finishReason = p.getText();
                    }
                }
                default -> p.skipChildren();
            }
        }
    }
}
