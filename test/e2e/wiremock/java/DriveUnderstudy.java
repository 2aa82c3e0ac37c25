// Drives Understudy's /__admin with WireMock's own Java client (from the standalone jar), as a
// JUnit suite written for WireMock would: stubFor, the stub served, verify, findAll, reset.
// Usage: java -cp wiremock-standalone.jar:. DriveUnderstudy HOST PORT; prints OK or fails.
import static com.github.tomakehurst.wiremock.client.WireMock.*;

import com.github.tomakehurst.wiremock.client.VerificationException;
import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

public class DriveUnderstudy {
  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    configureFor(host, port);
    WireMock.reset();

    StubMapping stub = stubFor(post(urlPathEqualTo("/java/orders"))
        .withHeader("Content-Type", containing("json"))
        .withRequestBody(matchingJsonPath("$.item", equalTo("book")))
        .willReturn(aResponse().withStatus(201).withHeader("X-From", "java").withBody("{\"id\":7}")));
    check(stub.getId() != null, "stubFor returns the stub with its id");
    check(getSingleStubMapping(stub.getId()).getRequest().getUrlPath().equals("/java/orders"), "the stub reads back");

    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> served = http.send(HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + "/java/orders?x=1"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    check(served.statusCode() == 201 && served.body().equals("{\"id\":7}") && "java".equals(served.headers().firstValue("X-From").orElse(null)), "the stub serves: " + served.statusCode() + " " + served.body());

    verify(1, postRequestedFor(urlPathEqualTo("/java/orders")).withRequestBody(matchingJsonPath("$.item")));
    boolean refused = false;
    try {
      verify(2, postRequestedFor(urlPathEqualTo("/java/orders")));
    } catch (VerificationException expected) {
      refused = true;
    }
    check(refused, "verify of a wrong count fails");

    List<LoggedRequest> found = findAll(postRequestedFor(urlPathEqualTo("/java/orders")));
    check(found.size() == 1 && found.get(0).getBodyAsString().equals("{\"item\":\"book\"}") && found.get(0).queryParameter("x").firstValue().equals("1"), "findAll finds the request");
    check(listAllStubMappings().getMappings().size() == 1, "one stub listed");

    WireMock.reset();
    check(listAllStubMappings().getMappings().isEmpty(), "reset removes the stub");
    check(findAll(anyRequestedFor(anyUrl())).isEmpty(), "reset clears the journal");
    HttpResponse<String> gone = http.send(HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + "/java/orders")).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
        HttpResponse.BodyHandlers.ofString());
    check(gone.statusCode() == 404, "after reset nothing matches");
    System.out.println("OK");
  }

  private static void check(boolean holds, String what) {
    if (!holds) throw new AssertionError(what);
  }
}
