package io.emq.migrate.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.emq.migrate.testing.RealServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LuaIncludesTest {
    @RegisterExtension
    static final RealServerExtension SERVER = RealServerExtension.standalone();

    private static LuaIncludes of(Map<String, String> snippets) {
        return new LuaIncludes(name -> Optional.ofNullable(snippets.get(name)));
    }

    @Test
    void anIncludeLineIsReplacedByTheSnippetExpandedFirstAndEachSnippetIsWrittenOnce() {
        LuaIncludes includes = of(Map.of(
                "clock", "local function now() return 1 end\n",
                "twice", "--- @include \"clock\"\nlocal function twice() return 2 * now() end"));
        String script = "-- head: KEYS[1] x\n--- @include \"twice\"\n--- @include \"clock\"\nreturn twice()\n";
        assertEquals("-- head: KEYS[1] x\nlocal function now() return 1 end\n"
                + "local function twice() return 2 * now() end\nreturn twice()\n", includes.expand("s", script));
    }

    @Test
    void aScriptWithoutIncludesIsKeptByteForByte() {
        String script = "-- no includes\r\nreturn 1 -- @include \"x\" is only a directive at line start\n";
        assertEquals(script, of(Map.of()).expand("s", script));
    }

    @Test
    void aMissingSnippetNamesTheScriptAndTheSnippet() {
        LuaIncludes.Unresolved e = assertThrows(LuaIncludes.Unresolved.class,
                () -> of(Map.of()).expand("claim", "--- @include \"nowhere\"\nreturn 1\n"));
        assertEquals("lua script claim includes \"nowhere\", which is not in lua/includes/", e.getMessage());
    }

    @Test
    void aCycleIsRefusedWithItsPath() {
        LuaIncludes includes = of(Map.of("a", "--- @include \"b\"\n", "b", "--- @include \"a\"\n"));
        LuaIncludes.Unresolved e = assertThrows(LuaIncludes.Unresolved.class,
                () -> includes.expand("claim", "--- @include \"a\"\n"));
        assertEquals("lua include cycle in claim: a -> b -> a", e.getMessage());
        LuaIncludes self = of(Map.of("a", "--- @include \"a\"\n"));
        assertThrows(LuaIncludes.Unresolved.class, () -> self.expand("claim", "--- @include \"a\"\n"));
    }

    @Test
    void theBundleShipsExpandedScriptsWhoseShaIsWhatTheServerComputes() {
        for (Script s : Script.values()) {
            String text = new String(s.source(), StandardCharsets.UTF_8);
            assertFalse(text.contains("--- @include"), s.fileName());
            assertTrue(text.startsWith("-- " + s.fileName() + ":"), s.fileName() + " keeps its header first");
            assertEquals(s.sha(), SERVER.client().scriptLoad(text), s.fileName());
        }
        String complete = new String(Script.COMPLETE.source(), StandardCharsets.UTF_8);
        assertTrue(complete.contains("local function server_ms()") || complete.contains("local function requeue("));
    }

    @Test
    void anExpandedScriptRunsWithItsSnippets() {
        Wire wire = Wire.open(SERVER.client());
        byte[] base = "emq:{inc}:".getBytes(StandardCharsets.UTF_8);
        List<Object> status = wire.eval(new ScriptCall<>(Script.DRAIN_STATUS, List.of("emq:{inc}:pending".getBytes(StandardCharsets.UTF_8),
                "emq:{inc}:active".getBytes(StandardCharsets.UTF_8), "emq:{inc}:schedule".getBytes(StandardCharsets.UTF_8)),
                List.of("0".getBytes(StandardCharsets.UTF_8), base), Replies::asList));
        assertEquals(List.of(0L, 0L, 0L, 0L, 0L), status);
        assertEquals(0L, wire.eval(new ScriptCall<>(Script.PROMOTE, List.of("emq:{inc}:schedule".getBytes(StandardCharsets.UTF_8),
                "emq:{inc}:pending".getBytes(StandardCharsets.UTF_8)), List.of(base, "10".getBytes(StandardCharsets.UTF_8)),
                Replies::asLong)));
    }
}
