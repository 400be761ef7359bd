package gov

import (
	"strings"

	govv1beta1 "cosmossdk.io/api/cosmos/gov/v1beta1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/module"
)

// ContentExec executes a legacy proposal content (a v1beta1 Content:
// ParameterChangeProposal, SoftwareUpgradeProposal, …) when its proposal
// passes, as the SDK's legacy router's handler for its route does.
type ContentExec func(st module.State, content proto.Message, env *module.Env) error

// TypeTextProposal is the type URL of the v1beta1 TextProposal, the
// content gov executes itself (it does nothing).
const TypeTextProposal = "/cosmos.gov.v1beta1.TextProposal"

// decodeContent decodes a legacy content and checks it as the SDK's
// v1beta1 ValidateAbstract does; its type must be TextProposal or have
// a ContentExec. A type URL no protobuf package registered fails as the
// SDK's tx decoder fails on it.
func (m *Module) decodeContent(a *anypb.Any) (proto.Message, error) {
	if a == nil {
		return nil, Err(CodeInvalidProposalContent).WithDetail("missing content")
	}
	content, err := a.UnmarshalNew()
	if err != nil {
		return nil, module.SDKError(module.CodeTxDecode, "unable to resolve type URL %s", a.TypeUrl)
	}
	if _, ok := m.Content[a.TypeUrl]; !ok && a.TypeUrl != TypeTextProposal {
		return nil, Err(CodeNoProposalHandlerExists).WithDetail("%s", strings.TrimPrefix(a.TypeUrl, "/"))
	}
	title, desc := contentText(content)
	switch {
	case strings.TrimSpace(title) == "":
		return nil, Err(CodeInvalidProposalContent).WithDetail("proposal title cannot be blank")
	case len(title) > maxTitleLen:
		return nil, Err(CodeInvalidProposalContent).WithDetail("proposal title is longer than max length of %d", maxTitleLen)
	case len(desc) == 0:
		return nil, Err(CodeInvalidProposalContent).WithDetail("proposal description cannot be blank")
	case len(desc) > maxDescriptionLen:
		return nil, Err(CodeInvalidProposalContent).WithDetail("proposal description is longer than max length of %d", maxDescriptionLen)
	}
	return content, nil
}

// contentText is a content's title and description (every v1beta1
// content has both, fields "title" and "description").
func contentText(content proto.Message) (title, desc string) {
	r := content.ProtoReflect()
	get := func(name protoreflect.Name) string {
		if f := r.Descriptor().Fields().ByName(name); f != nil && f.Kind() == protoreflect.StringKind {
			return r.Get(f).String()
		}
		return ""
	}
	return get("title"), get("description")
}

// runContent executes a legacy content: TextProposal does nothing, the
// others run their ContentExec.
func (m *Module) runContent(st module.State, a *anypb.Any, env *module.Env) error {
	content, err := m.decodeContent(a)
	if err != nil {
		return err
	}
	if a.TypeUrl == TypeTextProposal {
		return nil
	}
	return m.Content[a.TypeUrl](st, content, env)
}

// gov registers TextProposal, the content it executes itself.
var _ proto.Message = (*govv1beta1.TextProposal)(nil)

// newAny packs m as Cosmos packs an Any: type URL "/" + its full name.
func newAny(m proto.Message) (*anypb.Any, error) {
	b, err := deterministic.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &anypb.Any{TypeUrl: "/" + string(proto.MessageName(m)), Value: b}, nil
}
