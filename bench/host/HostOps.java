// What Java 17 makes of each line of stdin, as the df ops' JVM semantics
// promise (docs/bigtest.md, "Host-language semantics"): one output line per
// input line, `size|get0|parse_int|parse_float|substr(1,2)|length`, with
// ERR where Java throws. Run by bench/host-semantics.py.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

public class HostOps {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            String[] pieces = line.split(Pattern.quote(","));
            String get0 = pieces.length > 0 ? pieces[0] : "ERR";
            String parsedInt;
            try { parsedInt = Long.toString(Long.parseLong(line)); } catch (NumberFormatException e) { parsedInt = "ERR"; }
            String parsedFloat;
            try { parsedFloat = Double.toString(Double.parseDouble(line)); } catch (NumberFormatException e) { parsedFloat = "ERR"; }
            String sub;
            try { sub = line.substring(1, 3); } catch (IndexOutOfBoundsException e) { sub = "ERR"; }
            out.println(pieces.length + "|" + get0 + "|" + parsedInt + "|" + parsedFloat + "|" + sub + "|" + line.length());
        }
    }
}
